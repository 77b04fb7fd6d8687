// Each statement line is marked with the exact set of tests that run it (a "-" mark: it runs, only outside tests).
namespace Contexts;

public static class Registry
{
    public static readonly string Name;

    static Registry()
    { // ctx: -
        Name = "registry"; // ctx: -
    } // ctx: -

    public static string Touch()
    { // ctx: -
        return Name; // ctx: -
    } // ctx: -
}

public static class Counter
{
    public static readonly int Start;

    static Counter()
    { // ctx: Contexts.Tests.SyncTests.TriggersStaticConstructor
        Start = 40; // ctx: Contexts.Tests.SyncTests.TriggersStaticConstructor
    } // ctx: Contexts.Tests.SyncTests.TriggersStaticConstructor

    public static int Next() => Start + 2; // ctx: Contexts.Tests.SyncTests.TriggersStaticConstructor
}

public class Ledger
{
    private int _total;

    public int Add(int amount)
    { // ctx: Contexts.Tests.AsyncTests.AwaitsYield Contexts.Tests.SyncTests.UsesFixture
        _total += amount; // ctx: Contexts.Tests.AsyncTests.AwaitsYield Contexts.Tests.SyncTests.UsesFixture
        return _total; // ctx: Contexts.Tests.AsyncTests.AwaitsYield Contexts.Tests.SyncTests.UsesFixture
    } // ctx: Contexts.Tests.AsyncTests.AwaitsYield Contexts.Tests.SyncTests.UsesFixture

    public async Task<int> AddLaterAsync(int amount)
    { // ctx: Contexts.Tests.AsyncTests.AwaitsYield
        await Task.Yield(); // ctx: Contexts.Tests.AsyncTests.AwaitsYield
        await Task.Delay(20); // ctx: Contexts.Tests.AsyncTests.AwaitsYield
        return Add(amount); // ctx: Contexts.Tests.AsyncTests.AwaitsYield
    } // ctx: Contexts.Tests.AsyncTests.AwaitsYield
}

public static class Work
{
    public static int OnPool(int n)
    { // ctx: Contexts.Tests.AsyncTests.RunsOnThreadPool
        Thread.Sleep(20); // ctx: Contexts.Tests.AsyncTests.RunsOnThreadPool
        return n * 2; // ctx: Contexts.Tests.AsyncTests.RunsOnThreadPool
    } // ctx: Contexts.Tests.AsyncTests.RunsOnThreadPool

    public static string InContinuation()
    { // ctx: Contexts.Tests.AsyncTests.ContinuesWith
        return "continued"; // ctx: Contexts.Tests.AsyncTests.ContinuesWith
    } // ctx: Contexts.Tests.AsyncTests.ContinuesWith

    public static string Parity(int n)
    { // ctx: Contexts.Tests.TheoryTests.Parity
        if (n % 2 == 0) // ctx: Contexts.Tests.TheoryTests.Parity
            return "even"; // ctx: Contexts.Tests.TheoryTests.Parity
        return "odd"; // ctx: Contexts.Tests.TheoryTests.Parity
    } // ctx: Contexts.Tests.TheoryTests.Parity

    public static string Nested()
    { // ctx: Contexts.Tests.Outer+Inner.Nested
        return "nested"; // ctx: Contexts.Tests.Outer+Inner.Nested
    } // ctx: Contexts.Tests.Outer+Inner.Nested

    public static int Shared(int n)
    { // ctx: Contexts.Tests.SyncTests.UsesFixture Contexts.Tests.TheoryTests.Parity
        return n + 1; // ctx: Contexts.Tests.SyncTests.UsesFixture Contexts.Tests.TheoryTests.Parity
    } // ctx: Contexts.Tests.SyncTests.UsesFixture Contexts.Tests.TheoryTests.Parity

    public static int Never()
    {
        return 0;
    }
}
