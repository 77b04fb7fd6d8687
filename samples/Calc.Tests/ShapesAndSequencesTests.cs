using Calc;

namespace Calc.Tests;

public class ShapesAndSequencesTests
{
    [Fact]
    public void AreaOfCircleAndRectangle()
    {
        var circle = new Circle(1.0);
        Assert.Equal(Math.PI, Geometry.Area(circle), 10);
        Assert.Equal(6.0, Geometry.Area(new Rectangle(2.0, 3.0)));
        Assert.Equal("circle", circle.Label);
    }

    [Fact]
    public void LargestWithValueAndReferenceTypes()
    {
        Assert.Equal(9, Geometry.Largest(new[] { 3, 9, 4 }));
        Assert.Equal("zoo", Geometry.Largest(new List<string> { "pear", "zoo", "apple" }));
    }

    [Fact]
    public void EvensYieldsEveryValue()
    {
        Assert.Equal(new[] { 0, 2, 4 }, Sequences.Evens(3).ToArray());
    }

    [Fact]
    public async Task SumAsyncAwaits()
    {
        Assert.Equal(6, await Sequences.SumAsync(new[] { 1, 2, 3 }));
    }
}
