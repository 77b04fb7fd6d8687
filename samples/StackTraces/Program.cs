// StackTraces: runs code shapes that throw or capture `new StackTrace(true)` and prints, for every frame of
// this assembly, the method, file name, line, column and IL offset. Under dotcov the output must be exactly
// that of a plain run: tests/e2e/test_stack_traces.py compares them (Debug and Release, several runtime
// configurations). Methods whose frames are printed are NoInlining: in optimised code the JIT's inlining
// decisions are not dotcov's to keep (see docs/guarantees.md).
using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;

namespace StackTraces;

internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length == 1 && args[0] == "reflection")
        {
            // Every method runs first (so each has been compiled, with probes under dotcov), then its body
            // as reflection sees it is printed: it must be the original, as in a plain run.
            TextWriter stdout = Console.Out;
            Console.SetOut(TextWriter.Null);
            RunShapes("");
            Console.SetOut(stdout);
            Report.Bodies();
            return 0;
        }
        if (args.Length == 1 && args[0] == "corelib")
        {
            // CoreLib as reflection sees it: its type count, and whether dotcov's helper type is among them.
            Assembly corelib = typeof(object).Assembly;
            Console.WriteLine($"corelib types={corelib.GetTypes().Length} " +
                              $"DotCov.Probes={corelib.GetType("DotCov.Probes") is not null}");
            return 0;
        }
        RunShapes(args.Length == 1 ? args[0] : "");
        return 0;
    }

    private static void RunShapes(string only)
    {
        foreach (var (name, shape) in Shapes.All)
        {
            if (only != "" && only != name) continue;
            Console.WriteLine($"== {name}");
            try
            {
                shape();
                Console.WriteLine("no exception");
            }
            catch (Exception e)
            {
                Report.Exception(e);
            }
        }
    }
}

internal static class Report
{
    private static readonly System.Reflection.Module Ours = typeof(Report).Module;

    public static void Exception(Exception e)
    {
        Console.WriteLine($"exception {e.GetType().FullName}: {e.Message}");
        Frames(new StackTrace(e, true));
        if (e.InnerException is { } inner)
        {
            Console.WriteLine($"inner {inner.GetType().FullName}");
            Frames(new StackTrace(inner, true));
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Here(string what)
    {
        Console.WriteLine($"stack at {what}");
        Frames(new StackTrace(1, true));
    }

    // Each method body of this assembly as reflection returns it: IL bytes, max stack, locals, EH clauses.
    public static void Bodies()
    {
        const BindingFlags all = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static |
                                  BindingFlags.Instance | BindingFlags.DeclaredOnly;
        foreach (Type type in Ours.GetTypes().OrderBy(t => t.FullName, StringComparer.Ordinal))
        {
            IEnumerable<MethodBase> methods = type.GetMethods(all).Cast<MethodBase>().Concat(type.GetConstructors(all));
            foreach (MethodBase method in methods.OrderBy(m => m.MetadataToken))
            {
                MethodBody? body = method.GetMethodBody();
                if (body is null) continue;
                byte[] il = body.GetILAsByteArray() ?? [];
                Console.WriteLine($"{type.FullName}::{method.Name} il={il.Length} {Convert.ToHexString(il)} " +
                                  $"maxstack={body.MaxStackSize} locals={body.LocalVariables.Count} " +
                                  $"initlocals={body.InitLocals} clauses={body.ExceptionHandlingClauses.Count}");
            }
        }
    }

    private static void Frames(StackTrace trace)
    {
        foreach (StackFrame frame in trace.GetFrames())
        {
            var method = frame.GetMethod();
            if (method is null || method.Module != Ours) continue;
            string file = Path.GetFileName(frame.GetFileName() ?? "?");
            Console.WriteLine($"  {method.DeclaringType?.Name}.{method.Name} {file}:{frame.GetFileLineNumber()}:" +
                              $"{frame.GetFileColumnNumber()} il={frame.GetILOffset()}");
        }
    }
}

internal static class Shapes
{
    public static readonly (string, Action)[] All =
    [
        ("divide", () => Outer(0)),
        ("first-instruction", () => First([1, 2])),
        ("rethrow", Rethrow),
        ("dispatch-info", DispatchInfo),
        ("filter", Filter),
        ("finally", Finally),
        ("async", () => ThrowAsync(0).GetAwaiter().GetResult()),
        ("async-stack", () => CaptureAsync().GetAwaiter().GetResult()),
        ("iterator", Iterate),
        ("lambda", Lambda),
        ("local-function", LocalFunction),
        ("generic-value", () => Pick(new[] { 1, 2 }, 5)),
        ("generic-reference", () => Pick(new[] { "a" }, 3)),
        ("nested", Nested),
        ("branches", () => Branches(7, "seven")),
        ("switch", () => Switch(3)),
        ("loop", () => Loop(200_000)),
        ("hot", Hot),
        ("static-constructor", () => Broken.Value.ToString()),
        ("constructor", () => new Account(-5)),
    ];

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Outer(int d)
    {
        int a = 10;
        int r = Middle(a, d);
        return r + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Middle(int a, int d)
    {
        if (a > 5)
        {
            a += 1;
        }
        int r = Divide(a, d);
        return r * 2;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Divide(int a, int b)
    {
        Console.WriteLine($"dividing {a} by {b}");
        int q = a / b;
        return q;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int First(int[] a) => a[5];

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Rethrow()
    {
        try
        {
            Outer(0);
        }
        catch (DivideByZeroException)
        {
            Console.WriteLine("caught, rethrowing");
            throw;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void DispatchInfo()
    {
        ExceptionDispatchInfo? info = null;
        try
        {
            First([]);
        }
        catch (Exception e)
        {
            info = ExceptionDispatchInfo.Capture(e);
        }
        Console.WriteLine("captured");
        info?.Throw();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Filter()
    {
        try
        {
            Outer(0);
        }
        catch (Exception e) when (Inspect(e))
        {
            Console.WriteLine("filtered");
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool Inspect(Exception e)
    {
        // Runs in the first pass: the throwing frames are still on the stack.
        Report.Here("filter");
        return e is DivideByZeroException;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Finally()
    {
        int[] data = [1];
        try
        {
            data[0] = 2;
        }
        finally
        {
            Console.WriteLine("in finally");
            data[3] = 1;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static async Task<int> ThrowAsync(int d)
    {
        await Task.Yield();
        int x = 10;
        if (x > 3)
        {
            x -= d;
        }
        await Task.Delay(1);
        return 100 / d;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static async Task CaptureAsync()
    {
        int before = Environment.ProcessorCount > 0 ? 1 : 0;
        await Task.Yield();
        Report.Here("after await");
        Console.WriteLine(before);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static IEnumerable<int> Countdown(int from)
    {
        for (int i = from; ; i--)
        {
            if (i == 1)
            {
                Report.Here("iterator");
            }
            yield return 10 / i;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Iterate()
    {
        int sum = 0;
        foreach (int v in Countdown(3))
        {
            sum += v;
        }
        Console.WriteLine(sum);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Lambda()
    {
        int zero = 0;
        Func<int, int> f = [MethodImpl(MethodImplOptions.NoInlining)] (int x) =>
        {
            Report.Here("lambda");
            return x / zero;
        };
        Console.WriteLine(f(4));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void LocalFunction()
    {
        int total = 0;
        for (int i = 0; i < 3; i++)
        {
            total += Step(i);
        }
        Console.WriteLine(total);

        [MethodImpl(MethodImplOptions.NoInlining)]
        int Step(int i)
        {
            if (i == 2)
            {
                Report.Here("local function");
                throw new InvalidOperationException($"step {i}");
            }
            return i;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static T Pick<T>(T[] items, int i)
    {
        Report.Here($"generic {typeof(T).Name}");
        T item = items[i];
        return item;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Nested() => Level1(3);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Level1(int n)
    {
        int m = n * 2;
        Level2(m);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Level2(int n)
    {
        string s = n.ToString();
        Level3(s);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Level3(string s)
    {
        Report.Here("nested " + s);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Branches(int n, string name)
    {
        int score = n > 5 ? 1 : 2;
        if (n % 2 == 1 && name.Length > 3)
        {
            score += 10;
        }
        else if (n < 0 || name.Length == 0)
        {
            score -= 1;
        }
        Report.Here("branches");
        string? missing = score > 100 ? name : null;
        return missing!.Length + score;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Switch(int k)
    {
        int r;
        switch (k)
        {
            case 0: r = 10; break;
            case 1: r = 20; break;
            case 3:
                Report.Here("switch");
                r = checked(int.MaxValue + k);
                break;
            default: r = 0; break;
        }
        return r;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Loop(int n)
    {
        long sum = 0;
        for (int i = 0; i < n; i++)
        {
            sum += i;
            if (i == n - 1)
            {
                // Late in a long loop: on-stack replacement code where the runtime does OSR.
                Report.Here("loop");
            }
        }
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Hot()
    {
        long sum = 0;
        for (int i = 0; i < 200; i++) sum += Warm(i);
        // Time for a tier-1 recompile where tiering promotes Warm (e.g. DOTNET_TC_CallCountThreshold=1).
        Thread.Sleep(1000);
        sum += Warm(-1);
        Console.WriteLine(sum);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Warm(int i)
    {
        if (i < 0)
        {
            Report.Here("warm");
            throw new ArgumentOutOfRangeException(nameof(i));
        }
        return i % 7;
    }
}

internal static class Broken
{
    public static readonly int Value = Compute();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Compute()
    {
        string text = "not a number";
        return int.Parse(text);
    }
}

internal sealed class Account
{
    public Account(int balance)
    {
        if (balance < 0)
        {
            throw new ArgumentException("negative balance", nameof(balance));
        }
        Balance = balance;
    }

    public int Balance { get; }
}
