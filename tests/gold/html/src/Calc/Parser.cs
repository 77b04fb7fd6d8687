namespace Calc.Parsing
{
    public static class Parser
    {
        public static int Parse(string s)
        {
            return int.Parse(s);
        }
    }
}
