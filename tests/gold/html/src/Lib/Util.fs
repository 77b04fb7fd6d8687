module Lib.Util

let square x = x * x

let describe n =
    match n with
    | 0 -> "zero"
    | _ -> "many"
