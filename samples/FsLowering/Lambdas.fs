namespace FsLowering

module Lambdas =
    let trimmedLength : string -> int =
        fun s ->
            let t = s.Trim() // @hit @count 2 @debug-only (fsc -O keeps one point in this lambda, on the next line)
            t.Length // @hit @count 2 @release-miss (fsc -O inlines the lambda into the test assembly: this copy never runs)

    let neverCalled : string -> int =
        fun s ->
            let t = s.Trim() // @miss

            // a comment inside the lambda
            t.Length * 2 // @miss

    let operations = // @hit
        [
            "double", (fun x -> // @hit
                x * 2) // @hit
            "negate", (fun x -> // @hit
                -x) // @miss
        ]

    let grade score =
        match score with // @hit @count 2 @branches 2/3
        | s when s >= 90 -> "A" // @hit @count 2
        | s when s >= 50 -> "B" // @hit
        | _ -> failwith "no grade" // @miss

    let squaresOfNegatives (xs: int list) =
        xs // @hit
        |> List.filter (fun x -> x < 0) // @hit @count 3
        |> List.map (fun x -> // @hit
            x * x) // @miss

    type Tier =
        | Bronze
        | Silver
        | Gold

    let discount tier =
        match tier with // @hit @count 2 @branches 2/3
        | Bronze -> 0 // @hit
        | Silver -> 5 // @miss
        | Gold -> 10 // @hit

    // `||` / `&&` with a bool argument or local last: fsc keeps a branch for the first operand and computes the last
    // into the result (counted by a value probe). NoInlining: fsc -O would inline them into the test assembly.
    [<System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)>]
    let negativeOr (flag: bool) x = x < 0 || flag // @hit @count 2 @branches 3/4

    [<System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)>]
    let positiveAndBig x =
        let big = x > 10 // @hit @count 2
        x > 0 && big // @hit @count 2 @branches 3/4

    // A lambda starting on its statement's line, its arguments on continuation lines (issue 25, item 1).
    [<System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)>]
    let register (handler: int[] -> int) = handler // @hit @count 2

    [<System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)>]
    let unpack (args: int[]) i = args.[i] // @hit @count 2

    [<System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)>]
    let never (selector: int * int -> int) =
        register (fun args -> selector (unpack args 0, // @hit
                                        unpack args 1)) // @miss

    [<System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)>]
    let ran (selector: int * int -> int) =
        register (fun args -> selector (unpack args 0, // @hit
                                        unpack args 1)) // @hit

