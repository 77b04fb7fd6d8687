// Each statement line carries `// ctx:` with the exact set of tests that run it (`-`: it runs, only outside tests).
namespace Contexts;

public static class Registry
{
    public static readonly string Name;

    static Registry()
    {
        Name = "registry"; // ctx: -
    }

    public static string Touch()
    {
        return Name; // ctx: -
    }
}

public static class Counter
{
    public static readonly int Start;

    static Counter()
    {
        Start = 40; // ctx: Contexts.Tests.SyncTests.TriggersStaticConstructor
    }

    public static int Next() => Start + 2; // ctx: Contexts.Tests.SyncTests.TriggersStaticConstructor
}

public class Ledger
{
    private int _total;

    public int Add(int amount)
    {
        _total += amount; // ctx: Contexts.Tests.AsyncTests.AwaitsYield Contexts.Tests.SyncTests.UsesFixture
        return _total; // ctx: Contexts.Tests.AsyncTests.AwaitsYield Contexts.Tests.SyncTests.UsesFixture
    }

    public async Task<int> AddLaterAsync(int amount)
    {
        await Task.Yield(); // ctx: Contexts.Tests.AsyncTests.AwaitsYield
        await Task.Delay(20); // ctx: Contexts.Tests.AsyncTests.AwaitsYield
        return Add(amount); // ctx: Contexts.Tests.AsyncTests.AwaitsYield
    }
}

public static class Work
{
    public static int OnPool(int n)
    {
        Thread.Sleep(20); // ctx: Contexts.Tests.AsyncTests.RunsOnThreadPool
        return n * 2; // ctx: Contexts.Tests.AsyncTests.RunsOnThreadPool
    }

    public static string InContinuation()
    {
        return "continued"; // ctx: Contexts.Tests.AsyncTests.ContinuesWith
    }

    public static string Parity(int n)
    {
        if (n % 2 == 0) // ctx: Contexts.Tests.TheoryTests.Parity
        {
            return "even"; // ctx: Contexts.Tests.TheoryTests.Parity
        }
        return "odd"; // ctx: Contexts.Tests.TheoryTests.Parity
    }

    public static string Nested()
    {
        return "nested"; // ctx: Contexts.Tests.Outer+Inner.Nested
    }

    public static int Shared(int n)
    {
        return n + 1; // ctx: Contexts.Tests.SyncTests.UsesFixture Contexts.Tests.TheoryTests.Parity
    }

    public static int Never()
    {
        return 0;
    }
}
