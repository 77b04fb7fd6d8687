// Test classes run in parallel (xunit v2 runs each class as its own collection, in parallel by default);
// each test's hits must be its own whatever thread its awaits, Task.Run or ContinueWith continue on.
using Contexts;

namespace Contexts.Tests;

public sealed class RegistryFixture
{
    // Run by the framework, outside any test: its lines have no test context.
    public RegistryFixture() => Value = Registry.Touch();

    public string Value { get; }
}

public class AsyncTests
{
    [Fact]
    public async Task AwaitsYield()
    {
        Assert.Equal(5, await new Ledger().AddLaterAsync(5));
    }

    [Fact]
    public async Task RunsOnThreadPool()
    {
        await Task.Delay(10);
        Assert.Equal(6, await Task.Run(() => Work.OnPool(3)));
    }

    [Fact]
    public async Task ContinuesWith()
    {
        string s = await Task.Delay(15).ContinueWith(_ => Work.InContinuation());
        Assert.Equal("continued", s);
    }
}

public class SyncTests : IClassFixture<RegistryFixture>
{
    private readonly RegistryFixture _fixture;

    public SyncTests(RegistryFixture fixture) => _fixture = fixture;

    [Fact]
    public void UsesFixture()
    {
        Thread.Sleep(20);
        Assert.Equal("registry", _fixture.Value);
        Assert.Equal(3, new Ledger().Add(3));
        Assert.Equal(2, Work.Shared(1));
    }

    [Fact]
    public void TriggersStaticConstructor()
    {
        Assert.Equal(42, Counter.Next());
    }
}

public class TheoryTests
{
    [Theory]
    [InlineData(1, "odd")]
    [InlineData(2, "even")]
    public async Task Parity(int n, string expected)
    {
        await Task.Delay(5);
        Assert.Equal(expected, Work.Parity(n));
        Assert.Equal(n + 1, Work.Shared(n));
    }
}

public class Outer
{
    public class Inner
    {
        [Fact]
        public void Nested()
        {
            Assert.Equal("nested", Work.Nested());
        }
    }
}

public class LineTests
{
    // A wrapped test method keeps its line numbers: its IL offset map covers the try/finally dotcov adds.
    [Fact]
    public void StackTracesKeepTheirLines()
    {
        int here = new System.Diagnostics.StackTrace(true).GetFrame(0)!.GetFileLineNumber();
        Assert.Equal(91, here);
        try
        {
            throw new InvalidOperationException("line 95");
        }
        catch (InvalidOperationException e)
        {
            Assert.Equal(95, new System.Diagnostics.StackTrace(e, true).GetFrame(0)!.GetFileLineNumber());
        }
    }
}
