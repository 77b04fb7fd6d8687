module FsCalc.Algorithms

/// Recursive, not tail-recursive.
let rec factorial n =
    if n <= 1 then 1L // @hit
    else int64 n * factorial (n - 1) // @hit

/// A self-recursive inner loop in tail position: compiled to a branch, not a call.
let sumTo n =
    let rec loop acc i =
        if i > n then acc // @hit
        else loop (acc + i) (i + 1) // @hit
    loop 0 1 // @hit

/// Mutually recursive functions calling each other in tail position: `tail.` call prefixes in Release.
let rec isEven n =
    if n = 0 then true // @hit
    else isOdd (n - 1) // @hit

and isOdd n =
    if n = 0 then false // @hit
    else isEven (n - 1) // @hit

/// A list pipeline with lambdas.
let sumOfEvenSquares (values: int list) =
    values // @hit
    |> List.filter (fun v -> v % 2 = 0) // @hit
    |> List.map (fun v -> v * v) // @hit
    |> List.sum // @hit

/// A sequence expression: a state machine.
let multiplesOf k limit =
    seq { // @hit
        for i in 1 .. limit do // @hit
            if i % k = 0 then // @hit
                yield i // @hit
    }

/// A match with a guard; the negative case is never taken.
let classify n =
    match n with // @hit
    | 0 -> "zero" // @hit
    | n when n < 0 -> "negative" // @hit
    | n when n % 2 = 0 -> "even" // @hit
    | _ -> "odd" // @hit

/// Never called.
let neverCalled (log: ResizeArray<string>) x =
    log.Add(string x) // @miss
    x + 1 // @miss
