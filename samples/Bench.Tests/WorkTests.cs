using Bench;

namespace Bench.Tests;

// Few tests, much work each: the suite measures probe overhead, not test-framework startup.
// Expected values were computed by the same code without coverage.
public class WorkTests
{
    [Fact]
    public void Collatz() => Assert.Equal(Work.Collatz(Scale.Collatz), Work.Collatz(Scale.Collatz));

    [Fact]
    public void Primes() => Assert.True(Work.Primes(Scale.Primes) > 0);

    [Fact]
    public void Fib() => Assert.Equal(Scale.FibExpected, Work.Fib(Scale.Fib));

    [Fact]
    public void Linq() => Assert.True(Work.LinqSum(Scale.LinqRounds, 10_000) > 0);

    [Fact]
    public void Walk() => Assert.True(Work.Walk(Scale.WalkSteps) > 0);

    [Fact]
    public void Words() => Assert.True(Work.WordCounts(Scale.Words) > 0);
}

static class Scale
{
    public const int Collatz = 900_000;
    public const int Primes = 60_000_000;
    public const int Fib = 32;
    public const long FibExpected = 2_178_309;
    public const int LinqRounds = 1200;
    public const int WalkSteps = 9_000_000;
    public const int Words = 15_000_000;
}
