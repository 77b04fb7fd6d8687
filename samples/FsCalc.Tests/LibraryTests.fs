// Which library lines these tests reach is recorded by the expected-coverage marks in ../FsCalc (see its README).
module FsCalc.Tests.LibraryTests

open Xunit
open FsCalc

[<Fact>]
let ``distance from the origin`` () =
    Assert.Equal(5.0, Shapes.distance Shapes.origin { X = 3.0; Y = 4.0 })

[<Fact>]
let ``area of a circle and a rectangle, never of a triangle`` () =
    Assert.Equal(System.Math.PI, Shapes.area (Circle 1.0), 10)
    Assert.Equal(6.0, Shapes.area (Rectangle(2.0, 3.0)))

[<Fact>]
let ``describe only sees small shapes`` () =
    Assert.Equal("small", Shapes.describe (Rectangle(2.0, 3.0)))

[<Fact>]
let ``calculator adds and counts`` () =
    let calc = Calculator("calc")
    Assert.Equal(5, calc.Add(2, 3))
    Assert.Equal(1, calc.Operations)
    Assert.Equal("calc", calc.Name)

[<Fact>]
let ``divide catches division by zero`` () =
    let calc = Calculator("calc")
    Assert.Equal(Some 2, calc.Divide(6, 3))
    Assert.Equal(None, calc.Divide(1, 0))
    Assert.Equal(2, calc.Operations)

[<Fact>]
let ``logged runs the finally block`` () =
    let log = ResizeArray<string>()
    Assert.Equal(7, Calculator("calc").Logged(log, fun () -> 7))
    Assert.Equal<string list>([ "start"; "end" ], List.ofSeq log)

[<Fact>]
let ``recursion and loops`` () =
    Assert.Equal(120L, Algorithms.factorial 5)
    Assert.Equal(5050, Algorithms.sumTo 100)
    Assert.True(Algorithms.isEven 10)
    Assert.True(Algorithms.isOdd 7)

[<Fact>]
let ``pipelines and sequences`` () =
    Assert.Equal(20, Algorithms.sumOfEvenSquares [ 1; 2; 3; 4 ])
    Assert.Equal<int list>([ 3; 6; 9 ], Algorithms.multiplesOf 3 10 |> List.ofSeq)

[<Theory>]
[<InlineData(0, "zero")>]
[<InlineData(4, "even")>]
[<InlineData(7, "odd")>]
let ``classify never sees a negative number`` (n: int, expected: string) =
    Assert.Equal(expected, Algorithms.classify n)
