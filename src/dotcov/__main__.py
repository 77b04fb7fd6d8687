from dotcov.cli import main

main()
