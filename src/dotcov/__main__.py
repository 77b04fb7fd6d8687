from dotcov.launcher import main

main()
