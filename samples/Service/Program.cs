// Service: usage `dotnet Service.dll [PORT]` (else the SERVICE_PORT environment variable): listens on
// http://127.0.0.1:PORT until SIGTERM or Ctrl-C (SIGINT), then stops gracefully and returns 0.
// The marks are those of the tests' scenario (README.md): every `@hit` line also says, after `@by`, which of its
// phases run it: start (startup and the readiness requests to /health), a and b (the two groups of requests of
// tests/e2e/service_driver.py's SCENARIO), stop (the graceful shutdown after the signal).
namespace Service;

internal static class Program
{
    private static int Main(string[] args)
    { // @hit @by start
        string? port = args.Length > 0 ? args[0] : Environment.GetEnvironmentVariable("SERVICE_PORT"); // @hit @by start
        if (string.IsNullOrEmpty(port)) // @hit @by start
        { // @miss
            Console.Error.WriteLine("usage: Service PORT (or SERVICE_PORT)"); // @miss
            return 2; // @miss
        }
        var builder = WebApplication.CreateSlimBuilder(args); // @hit @by start
        builder.Logging.ClearProviders(); // @hit @by start
        var app = builder.Build(); // @hit @by start
        app.Lifetime.ApplicationStopping.Register(Handlers.OnStopping); // @hit @by start
        app.MapGet("/health", () => "ok"); // @hit @by start
        app.MapGet("/add", Handlers.Add); // @hit @by start
        app.MapGet("/classify/{n:int}", Handlers.Classify); // @hit @by start
        app.MapGet("/greet", Handlers.Greet); // @hit @by start
        app.MapPost("/reset", Handlers.Reset); // @hit @by start
        Console.WriteLine($"service: listening on port {port}"); // @hit @by start
        app.Run($"http://127.0.0.1:{port}"); // @hit @by start
        Console.WriteLine("service: stopped"); // @hit @by stop
        return 0; // @hit @by stop
    } // @hit @by stop
}
