namespace Calc;

public static class Sequences
{
    public static IEnumerable<int> Evens(int count)
    { // @hit
        for (int i = 0; i < count; i++) // @hit @branches 2/2
        { // @hit
            yield return i * 2; // @hit
        } // @hit
    } // @hit

    public static async Task<int> SumAsync(IEnumerable<int> values)
    { // @hit
        int total = 0; // @hit
        foreach (int v in values) // @hit @branches 2/2
        { // @hit
            await Task.Yield(); // @hit
            total += v; // @hit
        } // @hit
        return total; // @hit
    } // @hit

    public static async Task<string> DownloadAsync(string url)
    { // @miss
        await Task.Delay(10); // @miss
        return $"content of {url}"; // @miss
    } // @miss
}
