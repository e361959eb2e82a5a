"""mlparse.analyze"""
