namespace Lowering;

/// <summary>Lambdas that start on their statement's line and go on over continuation lines (issue 25, items 1-2).</summary>
public static class Continuations
{
    public static Func<int[], int> Register(Func<int[], int> handler) => handler; // @hit @count 3

    private static int Unpack(int[] args, int i) => args[i]; // @hit @count 2

    public static Func<int[], int> Never(Func<int, int, int> selector)
    { // @hit
        return Register(args => selector( // @hit
            Unpack(args, 0), // @miss
            Unpack(args, 1))); // @miss
    } // @hit

    public static Func<int[], int> Ran(Func<int, int, int> selector)
    { // @hit
        return Register(args => selector( // @hit
            Unpack(args, 0), // @hit
            Unpack(args, 1))); // @hit
    } // @hit

    public static Func<int[], int> Either()
    { // @hit
        return Register(args => args.Length > 0 // @hit @branches 0/2
            ? args[0] // @miss
            : -1); // @miss
    } // @hit

    public static readonly Func<int, int> CountDown = n => // @hit
    { // @miss
        n = Math.Abs(n); // @miss
        int count; // (no point: no statement)
        count = 0; // @miss
        do
        { // @miss
            count++; // @miss
            n--; // @miss
        } // @miss
        while (n > 0); // @miss @branches 0/2
        return count; // @miss
    }; // @miss

    public static readonly Func<int, int> CountUp = n => // @hit
    { // @hit
        n = Math.Abs(n); // @hit
        int count; // (no point: no statement)
        count = 0; // @hit
        do
        { // @hit @count 2
            count++; // @hit @count 2
            n--; // @hit @count 2
        } // @hit @count 2
        while (n > 0); // @hit @count 2 @branches 2/2
        return count; // @hit
    }; // @hit

    // Code without a point first in a block lambda's body: Release has no point on the `{`, and the line is the
    // lambda's all the same (no statement), never the initializer's.
    public static readonly Func<int, int> FirstNever = n => // @hit
    { // @miss
        int count; // (no point: no statement)
        count = Math.Abs(n); // @miss
        return count; // @miss
    }; // @miss

    public static readonly Func<int, int> FirstRan = n => // @hit
    { // @hit
        int count; // (no point: no statement)
        count = Math.Abs(n); // @hit
        return count; // @hit
    }; // @hit

    // The initializer's own code on a continuation line before a lambda's `{` (`["negate"] = x =>`) stays the
    // initializer's; a comment or string holding `=> {` opens no body.
    public static readonly Dictionary<string, Func<int, int>> Named = new() // @hit
    {
        ["twice"] = x => // @hit
        { // @hit
            int count; // (no point: no statement)
            count = x * 2; // @hit
            return count; // @hit
        }, // @hit
        ["negate"] = x => // @hit
        { // @miss
            int count; // (no point: no statement)
            count = -x; // @miss
            return count; // @miss
        }, // @miss
        ["=> {"] = /* => { */ // @hit
            x => // @hit
                x + 1, // @miss
    };
}
