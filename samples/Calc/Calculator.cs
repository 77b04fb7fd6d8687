namespace Calc;

/// <summary>A small calculator with a memory register and a running count of operations.</summary>
public class Calculator
{
    private static readonly int s_maxDigits;
    private int _memory;

    static Calculator()
    { // @hit
        s_maxDigits = 12; // @hit
        Created = DateTime.UnixEpoch; // @hit
    } // @hit

    public static DateTime Created { get; } // @miss

    public static int MaxDigits => s_maxDigits; // @hit

    public string Name { get; set; } = "calc"; // @hit

    public int Operations { get; private set; } // @hit

    public int Memory
    {
        get { return _memory; } // @hit
        set
        { // @hit
            if (value < 0) // @hit @branches 1/2
            { // @miss
                throw new ArgumentOutOfRangeException(nameof(value)); // @miss
            }
            _memory = value; // @hit
        } // @hit
    }

    public int Add(int a, int b)
    { // @hit
        Operations++; // @hit
        return a + b; // @hit
    } // @hit

    public int Subtract(int a, int b)
    { // @miss
        Operations++; // @miss
        return a - b; // @miss
    } // @miss

    public int Clamp(int value, int min, int max)
    { // @hit
        if (value < min) // @hit @branches 2/2
        { // @hit
            return min; // @hit
        }
        else if (value > max) // @hit @branches 1/2
        { // @miss
            return max; // @miss
        }
        return value; // @hit
    } // @hit

    public int Sum(IEnumerable<int> values)
    { // @hit
        int total = 0; // @hit
        foreach (int v in values) // @hit @branches 2/2
        { // @hit
            total += v; // @hit
        } // @hit
        Operations++; // @hit
        return total; // @hit
    } // @hit

    public int Factorial(int n)
    { // @hit
        int result = 1; // @hit
        for (int i = 2; i <= n; i++) // @hit @branches 2/2
        { // @hit
            result *= i; // @hit
        } // @hit
        return result; // @hit
    } // @hit

    public string Divide(int a, int b)
    { // @hit
        string text;
        try
        { // @hit
            text = (a / b).ToString(); // @hit
        } // @miss
        catch (DivideByZeroException) // @hit
        { // @hit
            text = "undefined"; // @hit
        } // @hit
        finally
        { // @hit
            Operations++; // @hit
        } // @hit
        return text; // @hit
    } // @hit

    public List<int> Scale(IEnumerable<int> values, int factor)
    { // @hit
        int offset = _memory; // @hit
        return values.Select(v => v * factor + offset).ToList(); // @hit
    } // @hit

    public int SumOfSquares(int n)
    { // @hit
        int total = 0; // @hit
        for (int i = 1; i <= n; i++) // @hit @branches 2/2
        { // @hit
            total += Square(i); // @hit
        } // @hit
        return total; // @hit

        static int Square(int x) => x * x; // @hit
    } // @hit
}
