namespace Lowering;

/// <summary>Statements the compiler lowers into branches the user did not write.</summary>
public static class Statements
{
    private static readonly object s_gate = new();
    private static int s_counter;

    public static string Name(int k)
    {
        switch (k)
        {
            case 1:
                return "one";
            case 2:
                return "two";
            default:
                return "many";
        }
    }

    public static async Task<string> NameAsync(int k)
    {
        await Task.Yield();
        switch (k)
        {
            case 1:
                return "one";
            case 2:
                return "two";
            default:
                return "many";
        }
    }

    public static IEnumerable<string> Names(IEnumerable<int> ks)
    {
        foreach (var k in ks)
        {
            switch (k)
            {
                case 1:
                    yield return "one";
                    break;
                default:
                    yield return "other";
                    break;
            }
        }
    }

    public static int Increment()
    {
        lock (s_gate)
        {
            return ++s_counter;
        }
    }

    public static int FirstByte(byte[] bytes)
    {
        using (var stream = new MemoryStream(bytes))
        {
            return stream.ReadByte();
        }
    }

    public static int Total(List<int> values)
    {
        int total = 0;
        foreach (var v in values)
        {
            total += v;
        }
        return total;
    }

    public static int Parse(string text)
    {
        try
        {
            return int.Parse(text);
        }
        catch (FormatException)
        {
            return -1;
        }
        catch (OverflowException e) when (text.StartsWith('-'))
        {
            return e.HResult == 0 ? 0 : int.MinValue;
        }
    }
}

public record Point(int X, int Y);

public record Tag
{
    public string Name { get; init; } = "";
}
