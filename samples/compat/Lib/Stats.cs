namespace CompatLib;

public static class Stats
{
    public static int Sum(IEnumerable<int> values)
    { // @hit
        var total = 0; // @hit
        foreach (var v in values) // @hit
            total += v; // @hit
        return total; // @hit
    } // @hit

    public static int CountEven(IEnumerable<int> values) => values.Count(v => v % 2 == 0); // @hit

    public static double Mean(IReadOnlyList<int> values)
    { // @miss
        if (values.Count == 0) // @miss
            return 0; // @miss
        return (double)Sum(values) / values.Count; // @miss
    } // @miss
}
