Imports Xunit
Imports VbLowering

' The lines and branches these tests reach are recorded by the marks in ../VbLowering/Decisions.vb.
Public Class DecisionTests
    <Fact>
    Public Sub Select_case_arms()
        Assert.Equal("one", Decisions.Name(1))
        Assert.Equal("many", Decisions.Name(7))
        Assert.Equal(1, Decisions.Color("red"))
        Assert.Equal(2, Decisions.Color("green"))
    End Sub

    <Fact>
    Public Sub If_elseif_and_short_circuits()
        Assert.Equal(1, Decisions.Sign(5))
        Assert.Equal(-1, Decisions.Sign(-5))
        Assert.Equal(-1, Decisions.Sign(-6))
        Assert.True(Decisions.Both(1, 1))
        Assert.False(Decisions.Both(1, 0))
        Assert.True(Decisions.Either(True, False))
        Assert.False(Decisions.Either(False, False))
        Assert.False(Decisions.PositiveAndBig(5))
        Assert.False(Decisions.PositiveAndBig(-1))
    End Sub

    <Fact>
    Public Async Function Lambdas_and_awaits() As Task
        Assert.NotNull(Lambdas.Never(Function(a, b) a + b))
        Assert.Equal(3, Lambdas.Ran(Function(a, b) a + b)(New Integer() {1, 2}))
        Assert.NotNull(Lambdas.CountDown)
        Assert.NotNull(Lambdas.FirstNever)
        Assert.Equal(3, Lambdas.FirstRan(-3))
        Assert.Equal("A", Await Lambdas.Find("a"))
        Assert.Equal(1, Await Lambdas.Known("a"))
        Assert.Equal(1, Await Lambdas.KnownAnd("a", True))
    End Function
End Class
