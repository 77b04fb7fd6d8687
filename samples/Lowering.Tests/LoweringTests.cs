using Lowering;

namespace Lowering.Tests;

// The lines and branches these tests reach are recorded by the marks in ../Lowering/*.cs (see README.md there).
public class LoweringTests
{
    [Fact]
    public void Lambdas_in_initializers_and_returns()
    {
        Assert.Equal(3, Lambdas.TrimmedLength(" abc "));
        Assert.Equal(4, Lambdas.TrimmedLength("abcd"));
        Assert.Equal(6, Lambdas.Operations["double"](3));
        Assert.Equal(5, Lambdas.Adder(2)(3));
        Assert.NotNull(Lambdas.Unused(1));
        Assert.Equal(6, Lambdas.Sum(1, 2, 3));
        Assert.True(Registry.FirstRule(1));
    }

    [Fact]
    public void Throws_between_statements_of_one_block()
    {
        Assert.Equal(9, MidBlock.ParseTwice("4"));
        Assert.Throws<FormatException>(() => MidBlock.ParseTwice("x"));
        Assert.Equal(3, MidBlock.Ratio(6, 3));
        Assert.Throws<DivideByZeroException>(() => MidBlock.Ratio(1, 0));
    }

    [Fact]
    public void Switch_expression_and_query()
    {
        Assert.Equal("A", Expressions.Grade(95));
        Assert.Equal("B", Expressions.Grade(60));
        Assert.Empty(Expressions.SquaresOfNegatives(new[] { 1, 2, 3 }));
        Assert.Equal(-1, Expressions.Area(-1, 2));
        Assert.Equal(6, Expressions.Area(2, 3));
        Assert.Equal(3, Expressions.LengthOrZero("abc"));
    }

    [Fact]
    public async Task Switch_statements_everywhere()
    {
        Assert.Equal("one", Statements.Name(1));
        Assert.Equal("many", Statements.Name(7));
        Assert.Equal("two", await Statements.NameAsync(2));
        Assert.Equal(new[] { "one", "one" }, Statements.Names(new[] { 1, 1 }).ToArray());
    }

    [Fact]
    public void Generated_plumbing()
    {
        Assert.True(Statements.Increment() > 0);
        Assert.Equal(7, Statements.FirstByte(new byte[] { 7 }));
        Assert.Equal(3, Statements.Total(new List<int> { 1, 2 }));
        Assert.Equal(12, Statements.Parse("12"));
        Assert.Equal(-1, Statements.Parse("x"));
        Assert.Equal(new Point(1, 2), new Point(1, 2));
        Assert.Equal("t", new Tag { Name = "t" }.Name);
    }

    [Fact]
    public void Conditions_computed_into_values()
    {
        Assert.True(Conditions.BothNegative(-1, -1));
        Assert.False(Conditions.BothNegative(1, -1));
        Assert.False(Conditions.BothNegative(2, 5));
        Assert.False(Conditions.NullOrEmpty("abc"));
        Assert.False(Conditions.NullOrEmpty("abcd"));
        Assert.True(Conditions.Greater(2, 1));
        Assert.True(Conditions.InRange(5));
        Assert.False(Conditions.InRange(20));
        Assert.True(Conditions.StartsAndEnds("abz"));
        Assert.Equal(4, Conditions.Code(() => 4));
        Assert.Equal(3, Conditions.Code(() => throw new CodedException(3)));
        Assert.True(new Switches(true).NegativeAndEnabled(-1));
        Assert.False(new Switches(true).NegativeAndEnabled(1));
        Assert.True(Switches.Quiet(true));
        Assert.False(Switches.Quiet(false));
    }

    [Fact]
    public void ShortCircuitsWithoutABranch()
    {
        // `ok || flag`: ok true twice, false once; flag evaluated once (false), never true when evaluated.
        Assert.True(Flags.OkOrFlag(true, false));
        Assert.False(Flags.OkOrFlag(false, false));
        Assert.True(Flags.OkOrFlag(true, true));
        Assert.True(Flags.PositiveAndBig(1, true));
        Assert.True(Flags.PositiveAndBig(2, true));
        Assert.Equal(1, Flags.Either(-1, false));
        Assert.Equal(0, Flags.Either(1, false));
        Assert.True(Flags.NegativeOrLarge(-5));
        Assert.False(Flags.NegativeOrLarge(5));
        var below = Flags.Below(false);
        Assert.True(below(-1));
        Assert.False(below(1));
        Assert.True(Flags.Any(true, false));
        bool no = false;
        Assert.True(Flags.NegativeOrIn(-1, in no));
        Assert.False(Flags.NegativeOrIn(1, in no));
        bool[] flags = { false };
        Assert.True(Flags.NegativeOrRefLocal(-1, flags));
        Assert.False(Flags.NegativeOrRefLocal(1, flags));
    }

    [Fact]
    public void Lambdas_on_their_statements_line()
    {
        Assert.NotNull(Continuations.Never((a, b) => a + b));
        Assert.Equal(3, Continuations.Ran((a, b) => a + b)(new[] { 1, 2 }));
        Assert.NotNull(Continuations.Either());
        Assert.Equal(2, Continuations.CountUp(2));
        Assert.NotNull(Continuations.CountDown);
        Assert.Equal(3, Continuations.FirstRan(-3));
        Assert.NotNull(Continuations.FirstNever);
        Assert.Equal(4, Continuations.Named["twice"](2));
    }

    [Fact]
    public async Task Conditions_after_await()
    {
        Assert.Equal("A", await Awaits.Find("a"));
        Assert.Equal(1, await Awaits.Length("a"));
        Assert.Equal("known", await Awaits.Known("a"));
        Assert.Equal(1, await Awaits.Both(true, 1));
        Assert.Equal(1, await Awaits.Either(true, 1));
        Assert.Equal("letter", await Awaits.Kind("a"));
        Assert.Equal(1, await Awaits.Pattern("a"));
        Assert.Equal(6, await Awaits.Total());
        Assert.Equal(1, await Awaits.Guarded(true));
        Assert.Equal("none", Awaits.Size(0));
        Assert.Equal("many", Awaits.Size(5));
        var upto = 0;
        await foreach (var i in Awaits.Upto(1))
            upto += i;
        Assert.Equal(3, upto);
    }
}
