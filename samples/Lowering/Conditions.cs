namespace Lowering;

/// <summary>Conditions computed into a value, with no branch of their own in the IL (docs/branches.md,
/// "Conditions computed into a value").</summary>
public static class Conditions
{
    public static bool BothNegative(int x, int y)
    { // @hit @count 3
        bool b = x < 0 && y < 0; // @hit @count 3 @branches 3/4
        return b; // @hit @count 3
    } // @hit @count 3

    public static bool NullOrEmpty(string? s)
    { // @hit @count 2
        var ok = s is null || s.Length == 0; // @hit @count 2 @branches 2/4
        return ok; // @hit @count 2
    } // @hit @count 2

    public static bool Greater(int a, int b)
    { // @hit
        return a > b; // @hit
    } // @hit

    public static bool InRange(int x) => x is > 0 and < 10; // @hit @count 2 @branches 3/4

    public static bool StartsAndEnds(string s) => s.StartsWith('a') && s.EndsWith('z'); // @hit @branches 2/4

    public static int Code(Func<int> f)
    { // @hit @count 2
        try
        { // @hit @count 2
            return f(); // @hit @count 2
        }
        catch (CodedException e) when (e.Code == 3) // @hit @branches 1/2
        { // @hit
            return 3; // @hit
        }
    } // @hit @count 2 @also-release
}

/// <summary>The last operand of `&&` / `||` a bool field or static field (docs/branches.md, "Which values count").
/// With a bool local or argument there, Roslyn emits no short circuit at all (`ldarg ok; ldarg flag; or`), the
/// gap docs/branches.md names; F# and VB keep the branch (samples/VbLowering `Either`).</summary>
public sealed class Switches(bool enabled) // @hit @count 2 (the primary constructor)
{
    public static bool Verbose;
    private readonly bool _enabled = enabled; // @hit @count 2

    public bool NegativeAndEnabled(int x)
    { // @hit @count 2
        bool b = x < 0 && _enabled; // @hit @count 2 @branches 3/4
        return b; // @hit @count 2
    } // @hit @count 2

    public static bool Quiet(bool ok) => ok && !Verbose; // @hit @count 2 @branches 3/4
}

public sealed class CodedException(int code) : Exception // @hit (the primary constructor)
{
    public int Code { get; } = code; // @hit
}

/// <summary>Short circuits whose last operand is a bool argument, local or captured variable: Roslyn evaluates both
/// operands and emits `or` / `and`, no branch for either (docs/branches.md, "Short circuits compiled without a
/// branch"), in Debug and Release. Each operand still has its two outcomes, the right one counted only when the
/// source evaluates it; the `if`'s branch on the combined value is no outcome of its own.</summary>
public static class Flags
{
    public static bool OkOrFlag(bool ok, bool flag)
    { // @hit @count 3
        bool r = ok || flag; // @hit @count 3 @branches 3/4
        return r; // @hit @count 3
    } // @hit @count 3

    public static bool PositiveAndBig(int x, bool big)
    { // @hit @count 2
        return x > 0 && big; // @hit @count 2 @branches 2/4
    } // @hit @count 2

    public static int Either(int a, bool flag)
    { // @hit @count 2
        if (a < 0 || flag) // @hit @count 2 @branches 3/4
            return 1; // @hit
        return 0; // @hit
    } // @hit @count 2

    public static bool NegativeOrLarge(int x)
    { // @hit @count 2
        bool large = x > 100; // @hit @count 2
        return x < 0 || large; // @hit @count 2 @branches 3/4
    } // @hit @count 2

    public static Func<int, bool> Below(bool inclusive) => x => x < 0 || inclusive; // @hit @count 2 @branches 3/4

    public static bool Any(bool a, bool flag) => a | flag; // @hit (no short circuit: no branch)

    public static bool NegativeOrIn(int x, in bool flag) => x < 0 || flag; // @hit @count 2 @branches 3/4

    public static bool NegativeOrRefLocal(int x, bool[] flags)
    { // @hit @count 2
        ref bool first = ref flags[0]; // @hit @count 2
        return x < 0 || first; // @hit @count 2 @branches 3/4
    } // @hit @count 2
}
