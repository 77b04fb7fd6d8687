Public Module Decisions
    Public Function Name(k As Integer) As String ' @hit @count 2
        Select Case k ' @hit @count 2 @branches 2/3
            Case 1 ' @hit
                Return "one" ' @hit
            Case 2, 3 ' @miss
                Return "few" ' @miss
            Case Else ' @hit
                Return "many" ' @hit
        End Select
    End Function ' @hit @count 2

    Public Function Color(s As String) As Integer ' @hit @count 2
        Select Case s ' @hit @count 2 @branches 2/3
            Case "red" ' @hit
                Return 1 ' @hit
            Case "green" ' @hit
                Return 2 ' @hit
            Case Else ' @miss
                Return 0 ' @miss
        End Select
    End Function ' @hit @count 2

    Public Function Sign(x As Integer) As Integer ' @hit @count 3
        If x > 0 Then ' @hit @count 3 @branches 2/2
            Return 1 ' @hit
        ElseIf x < 0 Then ' @hit @count 2 @branches 1/2
            Return -1 ' @hit @count 2
        Else ' @miss
            Return 0 ' @miss
        End If
    End Function ' @hit @count 3

    Public Function Both(a As Integer, b As Integer) As Boolean ' @hit @count 2
        If a > 0 AndAlso b > 0 Then ' @hit @count 2 @branches 3/4
            Return True ' @hit
        End If ' @hit
        Return a < 0 OrElse b < 0 ' @hit @branches 2/4
    End Function ' @hit @count 2

    Public Function Either(ok As Boolean, flag As Boolean) As Boolean ' @hit @count 2
        Return ok OrElse flag ' @hit @count 2 @branches 3/4
    End Function ' @hit @count 2
End Module
