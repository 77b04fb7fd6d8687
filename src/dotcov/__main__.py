from dotcov.cli.commands import main

main()
