namespace Members;

// Its constructor and the accessors of X and Y all point at this line; only the constructor and X's getter run.
public record Point(int X, int Y); // @hit

public class Settings
{
    public int Count { get; set; } // @hit
    public string Name { get; init; } = "none"; // @hit
    public int Limit { get; set; } = 3; // @hit
    private readonly int _start = 10; // @hit

    public Settings() // @hit
    { // @hit
    } // @hit

    public Settings(int count) // @miss
    { // @miss
        Count = count; // @miss
    } // @miss

    public int Start => _start; // @hit

    public int Doubled(int x) => x * 2; // @hit

    public int Tripled(int x) => x * 3; // @miss

    public int One() => 1; public int Two() => 2; // @hit
}

public static class Folded
{
    public static int ApplyTwice(int x)
    { // @hit
        Func<int, int> add = y => y + 1; // @hit
        Func<int, int> never = y => // @hit
        { // @miss
            return y - 1; // @miss
        }; // @miss
        return add(add(x)); // @hit
    } // @hit

    public static int WithLocal(int x)
    { // @hit
        int Square(int v)
        { // @miss
            return v * v; // @miss
        } // @miss
        return x + 1; // @hit
    } // @hit

    public static IEnumerable<int> Countdown(int n)
    { // @miss
        while (n > 0) // @miss
            yield return n--; // @miss
    } // @miss

    public static async Task<int> LaterAsync(int x)
    { // @hit
        await Task.Yield(); // @hit
        return x + 1; // @hit
    } // @hit

    public static int Never(int x)
    { // @miss
        return x > 0 ? x : -x; // @miss
    } // @miss
}

// Names in C# form on the HTML methods page (issue 25 item 13): tuple element names, a generic method, `out int?`.
public static class Orders
{
    public static int Count<T>(IReadOnlyList<(string Sku, int Qty)> lines, T tag, out int? first)
    { // @hit
        first = lines.Count; // @hit
        return lines.Count; // @hit
    } // @hit
}

// Names with nullable reference types and `dynamic` (NullableAttribute, NullableContextAttribute, DynamicAttribute):
// `string?`, not `string`; `dynamic`, not `object`; no `?` where the code is oblivious (`#nullable disable`).
public static class Annotations
{
    public static int Annotated(string? name, List<string?> names, object?[] values, Dictionary<string, object?> bag)
    { // @miss
        return names.Count + values.Length + bag.Count; // @miss
    } // @miss

    public static int Dynamic(dynamic value, List<dynamic> values, (string? Name, int Qty) line, int? qty)
    { // @miss
        return values.Count + line.Qty; // @miss
    } // @miss

    public static int First<T>(T? item, List<T> items, string name) where T : class
    { // @miss
        return items.Count + name.Length; // @miss
    } // @miss

#nullable disable
    public static int Oblivious(string name, List<string> names)
    { // @miss
        return names.Count; // @miss
    } // @miss
#nullable restore
}
