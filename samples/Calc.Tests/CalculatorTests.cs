using Calc;

namespace Calc.Tests;

// Which library lines these tests reach is recorded by the expected-coverage marks in ../Calc (see its README).
public class CalculatorTests
{
    [Fact]
    public void AddCountsOperations()
    {
        var calc = new Calculator();
        Assert.Equal(5, calc.Add(2, 3));
        Assert.Equal(1, calc.Operations);
        Assert.Equal("calc", calc.Name);
    }

    [Fact]
    public void StaticConstructorSetsMaxDigits()
    {
        Assert.Equal(12, Calculator.MaxDigits);
    }

    [Theory]
    [InlineData(5, 5)]
    [InlineData(-3, 0)]
    public void ClampNeverExceedsTheMaximumInTheseTests(int value, int expected)
    {
        Assert.Equal(expected, new Calculator().Clamp(value, 0, 10));
    }

    [Fact]
    public void SumAndFactorialLoop()
    {
        var calc = new Calculator();
        Assert.Equal(6, calc.Sum(new List<int> { 1, 2, 3 }));
        Assert.Equal(120, calc.Factorial(5));
    }

    [Fact]
    public void DivideByZeroIsCaught()
    {
        var calc = new Calculator();
        Assert.Equal("undefined", calc.Divide(7, 0));
        Assert.Equal(1, calc.Operations);
    }

    [Fact]
    public void MemoryAndScaleWithCapturedFactor()
    {
        var calc = new Calculator { Memory = 1 };
        Assert.Equal(1, calc.Memory);
        Assert.Equal(new List<int> { 3, 5, 7 }, calc.Scale(new[] { 1, 2, 3 }, 2));
    }

    [Fact]
    public void SumOfSquaresUsesLocalFunction()
    {
        Assert.Equal(14, new Calculator().SumOfSquares(3));
    }
}
