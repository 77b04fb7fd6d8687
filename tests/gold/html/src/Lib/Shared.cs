namespace Lib
{
    public static class Shared
    {
        public static int Twice(int x) => 2 * x;
    }
}
