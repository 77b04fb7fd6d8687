namespace Lowering;

/// <summary>Lambdas whose bodies lie inside a multi-line statement of another method.</summary>
public static class Lambdas
{
    public static readonly Func<string, int> TrimmedLength = s =>
    {
        var t = s.Trim();
        return t.Length;
    };

    public static readonly Func<string, int> NeverCalled = s =>
    {
        var t = s.Trim();

        // a comment inside the lambda
        return t.Length * 2;
    };

    public static readonly Dictionary<string, Func<int, int>> Operations = new()
    {
        ["double"] = x =>
        {
            return x * 2;
        },
        ["negate"] = x =>
        {
            return -x;
        },
    };

    public static Func<int, int> Adder(int n)
    {
        return x =>
        {
            return x + n;
        };
    }

    public static Func<int, int> Unused(int n)
    {
        return x =>
        {
            return x - n;
        };
    }

    public static int Sum(int a, int b, int c)
    {
        var total = Add(
            a,

            // the middle one
            b,
            /* the last one */
            c);
        return total;
    }

    private static int Add(int a, int b, int c) => a + b + c;
}

/// <summary>A static constructor whose lambda never runs, next to one that does.</summary>
public sealed class Registry
{
    private static readonly List<Func<int, bool>> s_rules;

    static Registry()
    {
        s_rules = new List<Func<int, bool>>
        {
            x => x > 0,
            x =>
            {
                return x % 2 == 0;
            },
        };
    }

    public static bool FirstRule(int x) => s_rules[0](x);
}
