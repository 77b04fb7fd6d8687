module FsCalc.Tests.WorkTests

open Xunit
open FsCalc

[<Fact>]
let ``addAsync awaits`` () =
    task {
        let! sum = Work.addAsync 2 3
        Assert.Equal(5, sum)
    }

[<Fact>]
let ``parseAsync parses a number`` () =
    Assert.Equal(Some 42, Work.parseAsync "42" |> Async.RunSynchronously)
