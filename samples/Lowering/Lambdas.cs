namespace Lowering;

/// <summary>Lambdas whose bodies lie inside a multi-line statement of another method.</summary>
public static class Lambdas
{
    public static readonly Func<string, int> TrimmedLength = s => // @hit
    { // @hit @count 2
        var t = s.Trim(); // @hit @count 2
        return t.Length; // @hit @count 2
    }; // @hit @count 2

    public static readonly Func<string, int> NeverCalled = s => // @hit
    { // @miss
        var t = s.Trim(); // @miss

        // a comment inside the lambda
        return t.Length * 2; // @miss
    }; // @miss

    public static readonly Dictionary<string, Func<int, int>> Operations = new() // @hit
    {
        ["double"] = x => // @hit
        { // @hit
            return x * 2; // @hit
        }, // @hit
        ["negate"] = x => // @hit
        { // @miss
            return -x; // @miss
        }, // @miss
    };

    public static Func<int, int> Adder(int n)
    { // @hit
        return x => // @hit
        { // @hit
            return x + n; // @hit
        }; // @hit
    } // @hit

    public static Func<int, int> Unused(int n)
    { // @hit
        return x => // @hit
        { // @miss
            return x - n; // @miss
        }; // @miss
    } // @hit

    public static int Sum(int a, int b, int c)
    { // @hit
        var total = Add( // @hit
            a, // @hit

            // the middle one
            b, // @hit
            /* the last one */
            c); // @hit
        return total; // @hit
    } // @hit

    private static int Add(int a, int b, int c) => a + b + c; // @hit
}

/// <summary>A static constructor whose lambda never runs, next to one that does.</summary>
public sealed class Registry
{
    private static readonly List<Func<int, bool>> s_rules;

    static Registry()
    { // @hit
        s_rules = new List<Func<int, bool>> // @hit
        {
            x => x > 0, // @hit
            x => // @hit
            { // @miss
                return x % 2 == 0; // @miss
            }, // @miss
        };
    } // @hit @also-release

    public static bool FirstRule(int x) => s_rules[0](x); // @hit
}
