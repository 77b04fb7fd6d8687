namespace Lowering;

/// <summary>Switch expressions and queries: arms and clauses are code of their own.</summary>
public static class Expressions
{
    public static string Grade(int score) => score switch
    {
        >= 90 => "A",
        >= 50 => "B",
        _ => throw new ArgumentOutOfRangeException(nameof(score)),
    };

    public static List<int> SquaresOfNegatives(int[] xs)
    {
        var squares = from x in xs
                      where x < 0
                      select x * x;
        return squares.ToList();
    }

    public static int Area(int w, int h)
    {
        if (w < 0 || h < 0)
        {
            return -1;
        }
        return w * h;
    }

    public static int LengthOrZero(string? s)
    {
        return s?.Length ?? 0;
    }
}
