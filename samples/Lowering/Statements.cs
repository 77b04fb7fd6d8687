namespace Lowering;

/// <summary>Statements the compiler lowers into branches the user did not write.</summary>
public static class Statements
{
    private static readonly object s_gate = new(); // @hit
    private static int s_counter;

    public static string Name(int k)
    { // @hit @count 2
        switch (k) // @hit @count 2 @branches 2/3
        {
            case 1:
                return "one"; // @hit
            case 2:
                return "two"; // @miss
            default:
                return "many"; // @hit
        }
    } // @hit @count 2

    public static async Task<string> NameAsync(int k)
    { // @hit
        await Task.Yield(); // @hit
        switch (k) // @hit @branches 1/3
        {
            case 1:
                return "one"; // @miss
            case 2:
                return "two"; // @hit
            default:
                return "many"; // @miss
        }
    } // @hit @also-release

    public static IEnumerable<string> Names(IEnumerable<int> ks)
    { // @hit
        foreach (var k in ks) // @hit @count 3 @branches 2/2
        { // @hit @count 2
            switch (k) // @hit @count 2 @branches 1/2
            {
                case 1:
                    yield return "one"; // @hit @count 2
                    break; // @hit @count 2
                default:
                    yield return "other"; // @miss
                    break; // @miss @debug-only
            }
        } // @hit @count 2
    } // @hit @also-release

    public static int Increment()
    { // @hit
        lock (s_gate) // @hit
        { // @hit
            return ++s_counter; // @hit
        }
    } // @hit @also-release

    public static int FirstByte(byte[] bytes)
    { // @hit
        using (var stream = new MemoryStream(bytes)) // @hit
        { // @hit
            return stream.ReadByte(); // @hit
        }
    } // @hit @also-release

    public static int Total(List<int> values)
    { // @hit
        int total = 0; // @hit
        foreach (var v in values) // @hit @count 3 @branches 2/2
        { // @hit @count 2
            total += v; // @hit @count 2
        } // @hit @count 2
        return total; // @hit
    } // @hit

    public static int Parse(string text)
    { // @hit @count 2
        try
        { // @hit @count 2
            return int.Parse(text); // @hit @count 2
        }
        catch (FormatException) // @hit
        { // @hit
            return -1; // @hit
        }
        catch (OverflowException e) when (text.StartsWith('-')) // @miss @branches 0/2
        { // @miss
            return e.HResult == 0 ? 0 : int.MinValue; // @miss @branches 0/2
        }
    } // @hit @count 2 @also-release
}

public record Point(int X, int Y); // @hit @count 2

public record Tag // @generated (only the copy constructor points here: no statement)
{
    public string Name { get; init; } = ""; // @hit
}
