"""mlparse.modules"""
