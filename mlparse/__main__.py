from mlparse.cli import main

main()
