namespace Lowering;

/// <summary>Short circuits and conditions on the value of an <c>await</c> (issue 25, item 3): the code after the
/// await runs under the state machine's hidden resume point, and each is still the user's branch on its line.</summary>
public static class Awaits // (helpers await completed tasks: a yielded one may be done or not when checked)
{
    private static async Task<string?> FindAsync(string k)
    { // @hit @count 5
        await Task.CompletedTask; // @hit @count 5
        return k == "a" ? "A" : null; // @hit @count 5 @branches 1/2
    } // @hit @count 5 @also-release

    private static async Task<bool> FlagAsync(bool b)
    { // @hit @count 3
        await Task.CompletedTask; // @hit @count 3
        return b; // @hit @count 3
    } // @hit @count 3 @also-release

    public static async Task<string> Find(string k)
    { // @hit
        var x = await FindAsync(k) ?? throw new KeyNotFoundException(k); // @hit @branches 1/2
        return x; // @hit
    } // @hit @also-release

    public static async Task<int?> Length(string k)
    { // @hit
        return (await FindAsync(k))?.Length; // @hit @branches 1/2
    } // @hit @also-release

    public static async Task<string> Known(string k)
    { // @hit
        return await FindAsync(k) != null ? "known" : "unknown"; // @hit @branches 1/2
    } // @hit @also-release

    public static async Task<int> Both(bool a, int b)
    { // @hit
        if (await FlagAsync(a) && b > 0) // @hit @branches 2/4
        { // @hit
            return 1; // @hit
        }
        return 0; // @miss
    } // @hit @also-release

    public static async Task<int> Either(bool a, int b)
    { // @hit
        if (await FlagAsync(a) || b > 0) // @hit @branches 1/4
        { // @hit
            return 1; // @hit
        }
        return 0; // @miss
    } // @hit @also-release

    public static async Task<string> Kind(string k)
    { // @hit
        return await FindAsync(k) switch // @hit @branches 1/2
        {
            "A" => "letter", // @hit
            _ => "other", // @miss
        };
    } // @hit @also-release

    public static async Task<int> Pattern(string k)
    { // @hit
        if (await FindAsync(k) is { Length: > 0 } s) // @hit @branches 2/4
        { // @hit
            return s.Length; // @hit
        }
        return 0; // @miss
    } // @hit @also-release

    // Plumbing after an await stays the compiler's: `await foreach` (its MoveNextAsync loop is the user's, as a
    // `foreach` is), `await using`'s disposal, an await in `finally`.
    public static async Task<int> Total()
    { // @hit
        var total = 0; // @hit
        await foreach (var x in new Two()) // @hit @count 3 @branches 2/2
        { // @hit @count 2
            total += x; // @hit @count 2
        } // @hit @count 2
        await using (var d = new Resource()) // @hit
        { // @hit
            total += d.Value; // @hit
        } // @hit
        return total; // @hit
    } // @hit @also-release

    public static async Task<int> Guarded(bool b)
    { // @hit
        try
        { // @hit
            return await FlagAsync(b) ? 1 : 2; // @hit @branches 1/2
        }
        finally
        { // @hit
            await Task.Yield(); // @hit
        } // @hit
    } // @hit @also-release

    // An async iterator right below a method with a `switch`: its MoveNext's dispose-mode test (before its first
    // point) is the compiler's, never an arm of the switch above.
    public static string Size(int n)
    { // @hit @count 2
        switch (n) // @hit @count 2 @branches 2/3
        {
            case 0:
                return "none"; // @hit
            case 1:
                return "one"; // @miss
            default:
                return "many"; // @hit
        }
    } // @hit @count 2

    public static async IAsyncEnumerable<int> Upto(int n)
    { // @hit
        await Task.CompletedTask; // @hit
        yield return n; // @hit
        yield return n + 1; // @hit
    } // @hit @also-release

    private sealed class Resource : IAsyncDisposable
    {
        public int Value => 3; // @hit

        public ValueTask DisposeAsync() => ValueTask.CompletedTask; // @hit
    }

    private sealed class Two : IAsyncEnumerable<int>, IAsyncEnumerator<int>
    {
        private int _i;

        public int Current => _i; // @hit @count 2

        public IAsyncEnumerator<int> GetAsyncEnumerator(CancellationToken token = default) => this; // @hit

        public ValueTask<bool> MoveNextAsync() => new(++_i <= 2); // @hit @count 3

        public ValueTask DisposeAsync() => default; // @hit
    }
}
