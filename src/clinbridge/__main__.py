from clinbridge.cli import main

main()
