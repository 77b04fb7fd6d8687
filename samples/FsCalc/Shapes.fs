namespace FsCalc

open System

/// A record.
type Point = { X: float; Y: float }

/// A discriminated union.
type Shape =
    | Circle of radius: float
    | Rectangle of width: float * height: float
    | Triangle of a: float * b: float * c: float

module Shapes =
    let origin = { X = 0.0; Y = 0.0 } // @hit

    let distance (p: Point) (q: Point) =
        let dx = p.X - q.X // @hit
        let dy = p.Y - q.Y // @hit
        sqrt (dx * dx + dy * dy) // @hit

    /// The Triangle case is never taken by the tests.
    let area shape =
        match shape with // @hit
        | Circle r -> Math.PI * r * r // @hit
        | Rectangle (w, h) -> w * h // @hit
        | Triangle (a, b, c) ->
            let s = (a + b + c) / 2.0 // @miss
            sqrt (s * (s - a) * (s - b) * (s - c)) // @miss

    /// The else branch is never taken by the tests.
    let describe shape =
        if area shape < 100.0 then // @hit
            "small" // @hit
        else
            "large" // @miss

    /// Never called.
    let perimeter shape =
        match shape with // @miss
        | Circle r -> 2.0 * Math.PI * r // @miss
        | Rectangle (w, h) -> 2.0 * (w + h) // @miss
        | Triangle (a, b, c) -> a + b + c // @miss
