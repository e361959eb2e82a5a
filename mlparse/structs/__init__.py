"""mlparse.structs"""
