namespace Linked;

public static class Unused
{
    public static int Twice(int x)
    { // @miss
        return x > 0 ? 2 * x : 0; // @miss @branches 0/2
    } // @miss
}
