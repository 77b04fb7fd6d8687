using System.Runtime.CompilerServices;

namespace AttachTarget;

internal static class Work
{
    // Never inlined into Main (Release): Main keeps the code it had before the attach, so a copy there would
    // never be counted, and what runs after the attach would depend on the build.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Run(string command)
    { // @hit
        switch (command) // @hit
        {
            case "before": return Before(); // @miss
            case "after": return After(3); // @hit
            default: return Unknown(command); // @miss
        }
    } // @hit

    // Runs only before the attach: not counted.
    private static string Before()
    { // @miss
        int total = 0; // @miss
        for (int i = 1; i <= 4; i++) // @miss
        { // @miss
            total += i; // @miss
        } // @miss
        return $"before {total}"; // @miss
    } // @miss

    private static string After(int n)
    { // @hit
        int total = 0; // @hit
        for (int i = 1; i <= n; i++) // @hit
        { // @hit
            total += i * i; // @hit
        } // @hit
        return $"after {total}"; // @hit
    } // @hit

    private static string Unknown(string command)
    { // @miss
        return $"unknown {command}"; // @miss
    } // @miss
}
