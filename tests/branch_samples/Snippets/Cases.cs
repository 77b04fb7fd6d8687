namespace Snippets;

// One method per pattern; tests/test_branches.py names the user branches each must keep.
public static class Cases
{
    private static string? s_name;

    public static int IfElse(int x)
    {
        if (x > 0)
        {
            return 1;
        }
        return 0;
    }

    public static bool OrElse(int a, int b) => a < 0 || b < 0;

    public static int Loop(int n)
    {
        int t = 0;
        for (int i = 0; i < n; i++)
        {
            t += i;
        }
        return t;
    }

    public static string Coalesce(string? s) => s ?? "none";

    public static string StaticCoalesce() => s_name ?? "none";

    public static int? Conditional(string? s) => s?.Length;

    public static int StaticConditional() => s_name?.Length ?? -1;

    public static Func<int, int> Lambda() => x => x + 1;

    public static Func<int, int> MethodGroup() => Twice;

    private static int Twice(int x) => 2 * x;

    public static int Using(Stream s)
    {
        using var r = new StreamReader(s);
        return r.Read();
    }

    public static int ForeachEnumerable(IEnumerable<int> xs)
    {
        int t = 0;
        foreach (int x in xs)
        {
            t += x;
        }
        return t;
    }

    public static int ForeachList(List<int> xs)
    {
        int t = 0;
        foreach (int x in xs)
        {
            t += x;
        }
        return t;
    }

    public static int ForeachArray(int[] xs)
    {
        int t = 0;
        foreach (int x in xs)
        {
            t += x;
        }
        return t;
    }

    public static string SwitchExpression(object o) => o switch
    {
        int => "int",
        string => "string",
        _ => "other",
    };

    public static int SwitchStatement(int x)
    {
        switch (x)
        {
            case 0: return 10;
            case 1: return 11;
            case 2: return 12;
            default: return -1;
        }
    }

    public static IEnumerable<int> Iterator(int n)
    {
        for (int i = 0; i < n; i++)
        {
            yield return i;
        }
    }

    public static async Task<int> AsyncAwait(Task<int> t)
    {
        int v = await t;
        if (v > 0)
        {
            return v;
        }
        return 0;
    }

    public static async Task<int> AsyncForeach(IEnumerable<int> xs)
    {
        int t = 0;
        foreach (int x in xs)
        {
            await Task.Yield();
            t += x;
        }
        return t;
    }

    public static async Task<string> AsyncSwitch(Task<int> t)
    {
        switch (await t)
        {
            case 1: return "one";
            case 2: return "two";
            default: return "many";
        }
    }

    public static IEnumerable<string> IteratorSwitch(IEnumerable<int> ks)
    {
        foreach (int k in ks)
        {
            switch (k)
            {
                case 1: yield return "one"; break;
                default: yield return "other"; break;
            }
        }
    }

    public static async Task<int> AsyncTryReturn(Task<int> t)
    {
        try
        {
            int v = await t;
            if (v > 0)
            {
                return v;
            }
            return 0;
        }
        finally
        {
            Console.Write("");
        }
    }

    public static int StringSwitch(string s)
    {
        switch (s)
        {
            case "a": return 1;
            case "b": return 2;
            case "c": return 3;
            default: return 0;
        }
    }

    public static int LongStringSwitch(string s)
    {
        switch (s)
        {
            case "alpha": return 1;
            case "beta": return 2;
            case "gamma": return 3;
            case "delta": return 4;
            case "epsilon": return 5;
            case "zeta": return 6;
            case "eta": case "theta": return 7;
        }
        return 0;
    }

    public static int Lock(object gate, int x)
    {
        lock (gate)
        {
            return x + 1;
        }
    }

    public static int CatchWhen(string text)
    {
        try
        {
            return int.Parse(text);
        }
        catch (FormatException)
        {
            return -1;
        }
        catch (OverflowException) when (text.Length > 3)
        {
            return -2;
        }
    }

    public static async Task<int> AsyncUsing(Stream s)
    {
        using var r = new StreamReader(s);
        string text = await r.ReadToEndAsync();
        return text.Length;
    }
}

public record Point(int X, int Y);

/// <summary>Short circuits Roslyn compiles to `or`/`and` with no branch (a bool argument or local last).</summary>
public static class Combined
{
    public static int IfOrFlag(int a, bool flag)
    {
        if (a < 0 || flag)
            return 1;
        return 0;
    }

    public static bool AndBig(int x, bool big) => x > 0 && big;

    public static bool Three(int x, int y, bool flag) => x < 0 || y < 0 || flag;

    public static int IfMixed(int x, bool flag, bool g)
    {
        if (x < 0 && (flag || g))
            return 1;
        return 0;
    }

    public static bool NotShortCircuit(bool a, bool flag) => a | flag;

    public static bool RefLocal(int x, bool[] flags)
    {
        ref bool first = ref flags[0];
        return x < 0 || first;
    }
}

/// <summary>`!x` as a condition: Release branches on `x` (`brtrue`),
/// Debug on the computed `!x` (`ceq`; `brfalse`).</summary>
public static class Negations
{
    public static int Count;

    public static void NotDone(bool done)
    {
        if (!done)
            Count++;
    }
}
