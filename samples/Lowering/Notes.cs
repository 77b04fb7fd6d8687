namespace Lowering;

public class PaymentException(int code) : Exception // @hit
{
    public int Code { get; } = code; // @hit
}

/// <summary>Branch notes in source terms (docs/branches.md): whole arm patterns, a `?:`'s condition, a condition
/// over several lines, and the operand of `||` that never ran.</summary>
public static class Notes
{
    public static string Explain(Exception e) => e switch // @hit @count 2 @branches 2/3
    {
        PaymentException { Code: 402 } => "pay", // @hit
        PaymentException { Code: 500 } => "retry", // @miss
        _ => "other", // @hit
    };

    public static int Sign(int x)
    { // @hit @count 2
        return x < 0 ? -1 : 1; // @hit @count 2 @branches 1/2
    } // @hit @count 2

    public static bool Big(int total, bool isNew)
    { // @hit @count 2
        if (total > 100 && // @hit @count 2 @branches 3/4
            isNew) // @hit @count 2
        { // @hit
            return true; // @hit
        }
        return false; // @hit
    } // @hit @count 2

    public static string Either(string? a, int n)
    { // @hit @count 2
        if (a == null || n > 3) // @hit @count 2 @branches 1/4
        { // @hit @count 2
            return "either"; // @hit @count 2
        }
        return "neither"; // @miss
    } // @hit @count 2
}
