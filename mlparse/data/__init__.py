"""mlparse.data"""
