from dotcov.cli.launcher import main

main()
