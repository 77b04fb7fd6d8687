namespace Linked;

public static class BetaApi
{
    public static string Grade(int score) => Grader.Grade(score); // @hit

    public static int Clamp(int value, int max) => Grader.Clamp(value, max); // @hit

    public static string Sign(int x) => Grader.Sign(x); // @miss
}
