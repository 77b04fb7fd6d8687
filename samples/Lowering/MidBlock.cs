namespace Lowering;

/// <summary>A call or a division that throws between two statements of one straight run of code: the
/// statements after it did not run, so their counts stay below the first's (dotcov shares one counter only
/// between points that nothing between them can throw from; docs/architecture.md, "Shared counters").</summary>
public static class MidBlock
{
    public static int ParseTwice(string s)
    { // @hit @count 2
        int n = 0; // @hit @count 2
        n = int.Parse(s); // @hit @count 2
        n = n * 2; // @hit
        return n + 1; // @hit
    } // @hit

    public static int Ratio(int a, int b)
    { // @hit @count 2
        int q = a / b; // @hit @count 2
        return q + 1; // @hit
    } // @hit
}
