// Crash: usage `dotnet Crash.dll MODE`, MODE being
//   sigkill   runs a few lines, then kills its own process with SIGKILL (exit status 128 + 9)
//   failfast  Environment.FailFast (SIGABRT)
//   exit      Environment.Exit(3)
//   throw     an unhandled exception (SIGABRT)
//   ok        returns 0
// Each mode has its own method. The expected-coverage marks (hit or miss comments at the ends of lines) are
// those of a run of `sigkill` mode alone: the other modes' methods are marked as missed, and so is
// everything after the kill.
using System.Diagnostics;

namespace Crash;

internal static class Program
{
    private static int Main(string[] args)
    { // @hit
        string mode = args.Length == 1 ? args[0] : ""; // @hit
        switch (mode) // @hit
        {
            case "sigkill": return SigKill(); // @hit
            case "failfast": return FailFast(); // @miss
            case "exit": return Exit(); // @miss
            case "throw": return Throw(); // @miss
            case "ok": return Ok(); // @miss
        }
        Console.Error.WriteLine("usage: Crash sigkill|failfast|exit|throw|ok"); // @miss
        return 2; // @miss
    } // @miss

    private static int SigKill()
    { // @hit
        int total = 0; // @hit
        for (int i = 1; i <= 3; i++) // @hit
        { // @hit
            total += i; // @hit
        } // @hit
        Console.WriteLine($"crash: sigkill after {total}"); // @hit
        // On Linux, Process.Kill sends SIGKILL, and a signal sent to one's own process is delivered before
        // kill(2) returns: nothing below runs.
        Process.GetCurrentProcess().Kill(); // @hit
        Console.WriteLine("crash: still alive"); // @miss
        return 1; // @miss
    } // @miss

    private static int FailFast()
    { // @miss
        Environment.FailFast("crash: failfast"); // @miss
        return 1; // @miss
    } // @miss

    private static int Exit()
    { // @miss
        Environment.Exit(3); // @miss
        return 1; // @miss
    } // @miss

    private static int Throw()
    { // @miss
        throw new InvalidOperationException("crash: throw"); // @miss
    }

    private static int Ok()
    { // @miss
        Console.WriteLine("crash: ok"); // @miss
        return 0; // @miss
    } // @miss
}
