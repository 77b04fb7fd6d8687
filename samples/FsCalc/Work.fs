module FsCalc.Work

open System.Threading.Tasks

/// A task computation expression.
let addAsync (a: int) (b: int) : Task<int> =
    task { // @hit
        do! Task.Yield() // @hit
        let sum = a + b // @hit
        return sum // @hit
    }

/// An async computation expression; only the success path runs.
let parseAsync (text: string) : Async<int option> =
    async { // @hit
        do! Async.Sleep 1 // @hit
        match System.Int32.TryParse text with // @hit
        | true, value -> return Some value // @hit
        | _ -> return None // @miss
    }

/// A task that is never run.
let slowAsync () : Task<int> =
    task { // @miss
        do! Task.Delay 10 // @miss
        return 42 // @miss
    }
