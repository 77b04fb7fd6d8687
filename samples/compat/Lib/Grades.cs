namespace CompatLib;

public static class Grades
{
    public static string Letter(int score)
    { // @hit
        if (score < 0 || score > 100) // @hit
            throw new ArgumentOutOfRangeException(nameof(score)); // @miss
        if (score >= 90) // @hit
            return "A"; // @hit
        if (score >= 50) // @hit
            return "pass"; // @hit
        return "fail"; // @miss
    } // @hit

    public static string Describe(int score) => $"{score}: {Letter(score)}"; // @hit
}
