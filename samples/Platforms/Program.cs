namespace Platforms;

// Every line's state and hit count (@count N, else 1) and every branch line's outcomes (@branches C/T) are exact.
public static class Program
{
    public static int Main(string[] args)
    { // @hit
        int sum = 0; // @hit
        for (int i = 0; i < 10; i++) // @hit @count 11 @branches 2/2
        { // @hit @count 10
            sum += Classify(i); // @hit @count 10
        } // @hit @count 10
        long big = Widen(sum); // @hit
        if (args.Length > 5) // @hit @branches 1/2
        { // @miss
            Console.WriteLine("many arguments"); // @miss
        } // @miss
        string text = Describe(big); // @hit
        Console.WriteLine($"{RuntimeInformationText()} {sum} {text}"); // @hit
        return sum == 25 ? 0 : 1; // @hit @branches 1/2
    } // @hit

    static int Classify(int n)
    { // @hit @count 10
        if (n % 2 == 0) // @hit @count 10 @branches 2/2
        { // @hit @count 5
            return 0; // @hit @count 5
        }
        return n; // @hit @count 5
    } // @hit @count 10

    static long Widen(int n)
    { // @hit
        return (long)n << 33; // @hit
    } // @hit

    static string Describe(long n) => n switch { 0 => "zero", < 0 => "negative", _ => "positive" }; // @hit @branches 1/3

    static string RuntimeInformationText()
    { // @hit
        return System.Runtime.InteropServices.RuntimeInformation.ProcessArchitecture.ToString(); // @hit
    } // @hit

    static void NeverCalled()
    { // @miss
        Console.WriteLine("never"); // @miss
    } // @miss
}
