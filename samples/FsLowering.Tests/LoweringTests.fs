module FsLowering.Tests.LoweringTests

open Xunit
open FsLowering

// The lines these tests reach are recorded by the marks in ../FsLowering/Lambdas.fs.
[<Fact>]
let ``lambdas bound at module level`` () =
    Assert.Equal(3, Lambdas.trimmedLength " abc ")
    Assert.Equal(4, Lambdas.trimmedLength "abcd")
    let double = snd (List.head Lambdas.operations)
    Assert.Equal(6, double 3)

[<Fact>]
let ``match arm and pipeline stage never reached`` () =
    Assert.Equal("A", Lambdas.grade 95)
    Assert.Equal("B", Lambdas.grade 60)
    Assert.Empty(Lambdas.squaresOfNegatives [ 1; 2; 3 ])

[<Fact>]
let ``match over a union: one outcome per arm`` () =
    Assert.Equal(0, Lambdas.discount Lambdas.Bronze)
    Assert.Equal(10, Lambdas.discount Lambdas.Gold)

[<Fact>]
let ``short circuits with a bool argument or local last`` () =
    Assert.True(Lambdas.negativeOr false -1)
    Assert.False(Lambdas.negativeOr false 1)
    Assert.False(Lambdas.positiveAndBig 5)
    Assert.False(Lambdas.positiveAndBig -1)

[<Fact>]
let ``a lambda on its statement's line`` () =
    Assert.NotNull(Lambdas.never (fun (a, b) -> a + b))
    Assert.Equal(3, (Lambdas.ran (fun (a, b) -> a + b)) [| 1; 2 |])
