using System;

namespace Calc
{
    /// <summary>Adds & divides; "quotes" <b>stay</b> text.</summary>
    public sealed class Calculator
    {
        public int Add(int a, int b) => a + b;

        public int Div(int a, int b)
        {
            if (b == 0 || a < 0)
            {
                throw new DivideByZeroException("b < 1 && a > 2");
            }
            return a / b;
        }

        /* A block comment
           over two lines */
        [ExcludeFromCodeCoverage]
        public void Debug() => Console.WriteLine(@"verbatim
string");
    }
}
