namespace Service;

/// <summary>The endpoints' code: one method each, so that each request runs lines of its own.</summary>
internal static class Handlers
{
    private static int s_requests; // counts the requests served, read by no test

    public static int Add(int a, int b)
    { // @hit @by a
        Interlocked.Increment(ref s_requests); // @hit @by a
        return a + b; // @hit @by a
    } // @hit @by a

    public static string Classify(int n)
    { // @hit @by a b
        Interlocked.Increment(ref s_requests); // @hit @by a b
        if (n < 0) // @hit @by a b
        { // @hit @by b
            return "negative"; // @hit @by b
        }
        if (n == 0) // @hit @by a
        { // @miss
            return "zero"; // @miss
        }
        return n % 2 == 0 ? "even" : "odd"; // @hit @by a
    } // @hit @by a b

    public static string Greet(string? name)
    { // @hit @by b
        Interlocked.Increment(ref s_requests); // @hit @by b
        if (name is null) // @hit @by b
        { // @miss
            return "hello, stranger"; // @miss
        }
        string greeting = $"hello, {name}"; // @hit @by b
        return greeting; // @hit @by b
    } // @hit @by b

    public static int Reset()
    { // @miss
        return Interlocked.Exchange(ref s_requests, 0); // @miss
    } // @miss

    public static void OnStopping()
    { // @hit @by stop
        Console.WriteLine($"service: stopping after {Volatile.Read(ref s_requests)} requests"); // @hit @by stop
    } // @hit @by stop
}
