namespace FsCalc

open System

/// A class with a primary constructor, properties and methods.
type Calculator(name: string) =
    let mutable operations = 0 // @hit

    member _.Name = name // @hit

    member _.Operations = operations // @hit

    member val Precision = 2 with get, set // @hit

    member _.Add(a: int, b: int) =
        operations <- operations + 1 // @hit
        a + b // @hit

    /// try/with: the DivideByZeroException handler runs, the OverflowException one does not.
    member _.Divide(a: int, b: int) =
        try // @hit
            operations <- operations + 1 // @hit
            Some(a / b) // @hit
        with // @hit
        | :? DivideByZeroException -> None // @hit
        | :? OverflowException -> failwith "overflow" // @miss

    /// try/finally: the finally block runs on the normal path.
    member _.Logged(log: ResizeArray<string>, f: unit -> int) =
        try // @hit
            log.Add "start" // @hit
            f () // @hit
        finally // @hit
            log.Add "end" // @hit

    /// Never called.
    member _.Reset() =
        operations <- 0 // @miss
