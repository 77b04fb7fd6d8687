namespace Linked;

// Compiled into two assemblies (Linked.Alpha and Linked.Beta link this file): dotcov reports it once,
// its hits added and its branch outcomes matched by their place in the source. The marks say what the
// two assemblies' tests run together: Alpha's takes one outcome of `score >= 50`, Beta's the other.
internal static class Grader
{
    public static string Grade(int score)
    { // @hit
        if (score >= 50) // @hit @branches 2/2
        { // @hit
            return "pass"; // @hit
        }
        return "fail"; // @hit
    } // @hit

    public static int Clamp(int value, int max)
    { // @hit
        if (value > max) // @hit @branches 1/2
        { // @miss
            return max; // @miss
        }
        return value; // @hit
    } // @hit

    public static string Sign(int x)
    { // @miss
        return x > 0 ? "positive" : "negative"; // @miss @branches 0/2
    } // @miss
}
