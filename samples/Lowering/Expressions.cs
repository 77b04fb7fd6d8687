namespace Lowering;

/// <summary>Switch expressions and queries: arms and clauses are code of their own.</summary>
public static class Expressions
{
    public static string Grade(int score) => score switch // @hit @count 2 @branches 2/3
    {
        >= 90 => "A", // @hit
        >= 50 => "B", // @hit
        _ => throw new ArgumentOutOfRangeException(nameof(score)), // @miss
    };

    public static List<int> SquaresOfNegatives(int[] xs)
    { // @hit
        var squares = from x in xs // @hit
                      where x < 0 // @hit @count 3
                      select x * x; // @miss
        return squares.ToList(); // @hit
    } // @hit

    public static int Area(int w, int h)
    { // @hit @count 2
        if (w < 0 || h < 0) // @hit @count 2 @branches 3/4
        { // @hit
            return -1; // @hit
        }
        return w * h; // @hit
    } // @hit @count 2

    public static int LengthOrZero(string? s)
    { // @hit
        return s?.Length ?? 0; // @hit @branches 1/2
    } // @hit
}
