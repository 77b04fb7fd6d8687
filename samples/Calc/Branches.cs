namespace Calc;

/// <summary>Methods whose branches the branch-coverage tests check (see README.md for the marks).</summary>
public static class Branches
{
    private static readonly int[] s_primes = { 2, 3, 5 }; // @hit

    public static bool AnyNegative(int a, int b)
    { // @hit
        if (a < 0 || b < 0) // @hit @branches 3/4
        { // @hit
            return true; // @hit
        }
        return false; // @miss
    } // @hit

    public static int? LengthOf(string? text)
    { // @hit
        return text?.Length; // @hit @branches 2/2
    } // @hit

    public static string NameOrDefault(string? name)
    { // @hit
        return name ?? "none"; // @hit @branches 1/2
    } // @hit

    // On one line: the never-taken arm gets no line of its own; branch coverage shows it (arm `< 0`: 2 of 3 arms).
    public static string Describe(int n) => n switch { 0 => "zero", < 0 => "negative", _ => "positive" }; // @hit @branches 2/3

    public static int SumPrimes()
    { // @hit
        int total = 0; // @hit
        foreach (int p in s_primes) // @hit @branches 2/2
        { // @hit
            total += p; // @hit
        } // @hit
        return total; // @hit
    } // @hit

    public static int CountWords(List<string> words)
    { // @hit
        int count = 0; // @hit
        foreach (string w in words) // @hit @branches 2/2
        { // @hit
            count += w.Length > 0 ? 1 : 0; // @hit @branches 1/2
        } // @hit
        return count; // @hit
    } // @hit

    public static int ReadAll(Stream stream)
    { // @hit
        using var reader = new StreamReader(stream); // @hit
        return reader.ReadToEnd().Length; // @hit
    } // @hit

    public static Func<int, int> Doubler()
    { // @hit
        return x => x * 2; // @hit
    } // @hit

    public static async Task<int> CompletedAwaitAsync()
    { // @hit
        int value = await Task.FromResult(20); // @hit
        return value + 1; // @hit
    } // @hit

    public static async Task<int> YieldingAwaitAsync()
    { // @hit
        await Task.Yield(); // @hit
        return 42; // @hit
    } // @hit
}
