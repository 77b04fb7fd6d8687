' Lambdas that start on their statement's line and go on over continuation lines, multi-line lambdas that never
' run, and conditions on the value of an Await (issue 25, items 1-3). Release: no point on `Do` (@debug-only).
Public Module Lambdas
    Public Function Register(handler As Func(Of Integer(), Integer)) As Func(Of Integer(), Integer) ' @hit @count 2 @debug-only
        Return handler ' @hit @count 2
    End Function ' @hit @count 2

    Private Function Unpack(args As Integer(), i As Integer) As Integer ' @hit @count 2 @debug-only
        Return args(i) ' @hit @count 2
    End Function ' @hit @count 2

    Public Function Never(selector As Func(Of Integer, Integer, Integer)) As Func(Of Integer(), Integer) ' @hit @debug-only
        Return Register(Function(args) selector( ' @hit
            Unpack(args, 0), ' @miss
            Unpack(args, 1))) ' @miss
    End Function ' @hit

    Public Function Ran(selector As Func(Of Integer, Integer, Integer)) As Func(Of Integer(), Integer) ' @hit @debug-only
        Return Register(Function(args) selector( ' @hit
            Unpack(args, 0), ' @hit
            Unpack(args, 1))) ' @hit
    End Function ' @hit

    Public ReadOnly CountDown As Func(Of Integer, Integer) = Function(n) ' @hit
                                                                 n = Math.Abs(n) ' @miss
                                                                 Dim count As Integer
                                                                 count = 0 ' @miss
                                                                 Do ' @miss @debug-only
                                                                     count += 1 ' @miss
                                                                     n -= 1 ' @miss
                                                                 Loop While n > 0 ' @miss @branches 0/2
                                                                 Return count ' @miss
                                                             End Function ' @miss

    Private Async Function FindAsync(k As String) As Task(Of String) ' @hit @count 3 @debug-only
        ' A completed task: a task that yields could be done or not when its caller checks (test_shared_counters.py).
        Await Task.CompletedTask ' @hit @count 3
        Return If(k = "a", "A", Nothing) ' @hit @count 3 @branches 1/2
    End Function ' @hit @count 3

    Public Async Function Find(k As String) As Task(Of String) ' @hit @debug-only
        Return If(Await FindAsync(k), "none") ' @hit @branches 1/2
    End Function ' @hit

    Public Async Function Known(k As String) As Task(Of Integer) ' @hit @debug-only
        If Await FindAsync(k) IsNot Nothing Then ' @hit @branches 1/2
            Return 1 ' @hit
        End If ' @miss @debug-only
        Return 0 ' @miss
    End Function ' @hit

    Public Async Function KnownAnd(k As String, flag As Boolean) As Task(Of Integer) ' @hit @debug-only
        If Await FindAsync(k) IsNot Nothing AndAlso flag Then ' @hit @branches 2/4
            Return 1 ' @hit
        End If ' @miss @debug-only
        Return 0 ' @miss
    End Function ' @hit

    ' Code without a point first in the lambda's body: in Release nothing before `count = ...` has the lambda's point,
    ' and `Dim count` is the lambda's all the same (no statement), never the initializer's.
    Public ReadOnly FirstNever As Func(Of Integer, Integer) = Function(n) ' @hit
                                                                  Dim count As Integer
                                                                  count = Math.Abs(n) ' @miss
                                                                  Return count ' @miss @debug-only
                                                              End Function ' @miss

    Public ReadOnly FirstRan As Func(Of Integer, Integer) = Function(n) ' @hit
                                                                Dim count As Integer
                                                                count = Math.Abs(n) ' @hit
                                                                Return count ' @hit @debug-only
                                                            End Function ' @hit
End Module
