' Release (vbc /optimize): no sequence points on Function headers, Case / Else lines or End If (the VB
' counterpart of C#'s bracket-only lines): those are @debug-only. The End Function after `Return ok OrElse flag`
' keeps a point on the `ok` true path only (`ldarg.0; brtrue T; ldarg.1; ret; T: ldc.i4.1; ret`): @release-count.
Public Module Decisions
    Public Function Name(k As Integer) As String ' @hit @count 2 @debug-only
        Select Case k ' @hit @count 2 @branches 2/3
            Case 1 ' @hit @debug-only
                Return "one" ' @hit
            Case 2, 3 ' @miss @debug-only
                Return "few" ' @miss
            Case Else ' @hit @debug-only
                Return "many" ' @hit
        End Select
    End Function ' @hit @count 2

    Public Function Color(s As String) As Integer ' @hit @count 2 @debug-only
        Select Case s ' @hit @count 2 @branches 2/3
            Case "red" ' @hit @debug-only
                Return 1 ' @hit
            Case "green" ' @hit @debug-only
                Return 2 ' @hit
            Case Else ' @miss @debug-only
                Return 0 ' @miss
        End Select
    End Function ' @hit @count 2

    Public Function Sign(x As Integer) As Integer ' @hit @count 3 @debug-only
        If x > 0 Then ' @hit @count 3 @branches 2/2
            Return 1 ' @hit
        ElseIf x < 0 Then ' @hit @count 2 @branches 1/2
            Return -1 ' @hit @count 2
        Else ' @miss @debug-only
            Return 0 ' @miss
        End If
    End Function ' @hit @count 3

    Public Function Both(a As Integer, b As Integer) As Boolean ' @hit @count 2 @debug-only
        If a > 0 AndAlso b > 0 Then ' @hit @count 2 @branches 3/4
            Return True ' @hit
        End If ' @hit @debug-only
        Return a < 0 OrElse b < 0 ' @hit @branches 2/4
    End Function ' @hit @count 2

    Public Function Either(ok As Boolean, flag As Boolean) As Boolean ' @hit @count 2 @debug-only
        Return ok OrElse flag ' @hit @count 2 @branches 3/4
    End Function ' @hit @count 2 @release-count 1

    Public Function PositiveAndBig(x As Integer) As Boolean ' @hit @count 2 @debug-only
        Dim big As Boolean = x > 10 ' @hit @count 2
        Return x > 0 AndAlso big ' @hit @count 2 @branches 3/4
    End Function ' @hit @count 2 @release-count 1
End Module
